"""Variants of Spit for pupils to try with tools/check_variant.py
(docs/teachers/CHANGING_THE_GAME.md): hook.py gives the rules core one method to
change, and every other file here is one worked example."""
