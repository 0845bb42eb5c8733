# The host floor: what runs the firmware's app off the device, written once for every
# host (the desktop emulator, the emulated Pico's engine, the browser build, the tests
# and tools/). MicroPython-compatible (the browser runs it in MicroPython WebAssembly,
# tools/firmware_sim.py under the unix port), never deployed to the board.
#
#   shared_rules  <-  firmware  <-  host  <-  desktop_emulator, web, tests, tools
#
# clock    a simulated clock that moves only when told
# ports    the app's ports for a simulated device: stamp-ordered and per-frame input
#          queues, the display panel (show_spans), sound log, memory storage
# replays  replay files with the hosts' header comments: parse and format
# seats    who sits where: the CPU levels' names, one table
# state    the --print-state line and the summary line, and their digest
# skin     the handheld's colours, for every host that draws it
# rig      an app on simulated ports for tests and tools (Rig, BotHand)
