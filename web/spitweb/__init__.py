# The browser engine's Python: the firmware app's ports on top of a web page, and the
# session that JavaScript steps once per animation frame (docs/WEB.md). Runs inside
# MicroPython compiled to WebAssembly; also under CPython and the unix `micropython`
# binary in the tests. It never imports `js`: the page hands it a small bridge object
# (canvas, audio, localStorage, page text), so every decision stays in Python.
