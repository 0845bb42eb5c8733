# The link's transport port: the one place that says what a cable (or anything that
# carries its bytes) must offer the app. The app receives it like its other ports
# (firmware.app.Ports(..., link=port)); the device's UART0, a TCP socket on the
# desktop and the simulated cable of the tests all implement it.


class LinkPort:
    """What the link needs of its transport; subclassing is optional, the methods are
    the contract.

    write(buf)          queue the whole frame `buf` (bytes) for sending and return at
                        once; never blocks, never splits a frame with another one. A
                        port that cannot take it drops it whole (the protocol resends).
    readinto(buf) -> n  copy up to len(buf) received bytes into `buf`; 0 when nothing
                        has arrived. Never blocks.
    uid                 bytes that no other device has (machine.unique_id() on the
                        device): the role election (R43) uses them, so it cannot tie.
    byte_us             (optional) µs one byte takes on the line (10 bits at the baud
                        rate), so the clock sync can take the known part of a round
                        trip out of its uncertainty; 0 or absent: unknown.
    edges               (optional) the frame starts on the line, stamped on the wire:
                        edges.frame_starts(out) appends (ticks_us, "TX" | "RX") for each
                        frame that began after a quiet line, since the last call, on
                        the clock port's clock (firmware/hw/link_uart.py LinkEdges). With
                        it (and byte_us) the clock sync stamps the wire, not the loop.

    Time is not the port's business: the link stamps what it sends and receives with
    the app's clock port (ticks_us(), the clock the buttons are stamped with).
    """

    uid = b""

    def write(self, buf):
        raise NotImplementedError

    def readinto(self, buf):
        raise NotImplementedError
