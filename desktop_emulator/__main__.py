import sys

from desktop_emulator.cli import main

sys.exit(main())
