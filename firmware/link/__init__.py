# Link play (R43): two handhelds, one cable. port.py defines the transport port;
# frame.py the bytes on the wire; sync.py the peer's clock; link.py the protocol
# (handshake, election, acknowledgement and resend, heartbeat); play.py the linked
# game on top of the app. docs/LINK.md explains it.
