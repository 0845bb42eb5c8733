# The PIO programs of the button capture (buttons_pio.py), generated from the pin map.
#
# In a module of their own: while rp2.asm_pio assembles, it swaps this module's globals
# for its assembler's names, so nothing an interrupt handler needs may live here.
# Imported only by PioCapture.start() (it needs the rp2 module).

import rp2

# The sampler's loop, in cycles: SAMPLE_CYCLES + 2 * runs + CHANGED_CYCLES whichever way
# it goes (buttons_pio.loop_cycles() says the same).
CHANGED_CYCLES = 10


def sampler(runs, n, pad):
    """The sampler for n buttons in `runs` of consecutive GPIOs, ((length, distance to
    the next run's first pin), ...), counted from IN_BASE = the lowest button GPIO.

    Registers: X counts loops down (the time), Y holds the last state pushed, inverted
    (a pressed button is a 1); OSR holds the sample, then X while X holds the new state.
    On a change it pushes two words (the DMA takes them; `noblock`: a full FIFO never
    stalls the loop, the PIO counts the drop in FDEBUG) and raises its IRQ flag:
      state word: bit 29 set, the n state bits just below it;
      count word: bit 29 clear, the loop count's low 29 bits (X counts down from 0).
    The unchanged way waits `pad` cycles so both ways take the same time."""

    @rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_LEFT, out_shiftdir=rp2.PIO.SHIFT_RIGHT,
                 fifo_join=rp2.PIO.JOIN_RX)
    def program():
        label("changed")
        mov(y, x)                      # the new (inverted) state is the state now
        mov(isr, null)
        in_(x, n + 1)                  # n state bits and the 1 just above them
        in_(null, 29 - n)              # ... moved up so that 1 is bit 29
        push(noblock)
        in_(osr, 29)                   # the loop count, bit 29 clear
        push(noblock)
        irq(rel(0))                    # tell the CPU
        mov(x, osr)
        jmp(x_dec, "sample")           # also falls through to "sample" when X was 0
        wrap_target()
        label("sample")
        mov(osr, pins)                 # the sample: every pin in the same cycle
        for length, gap in runs:
            in_(osr, length)
            if gap:
                out(null, gap)
        mov(osr, x)
        mov(x, invert(isr))
        jmp(x_not_y, "changed")
        mov(x, osr)
        mov(isr, null)[pad]
        jmp(x_dec, "sample")
        wrap()

    return program


def calibrator(delays):
    """Pushes a word every sum(d + 1 for d in delays) cycles, Y + 1 times, then halts.
    delays: the delay of each instruction of the loop (push, nops, jmp)."""

    @rp2.asm_pio()
    def program():
        label("push")
        push(noblock)[delays[0]]
        for d in delays[1:-1]:
            nop()[d]
        jmp(y_dec, "push")[delays[-1]]
        label("halt")
        jmp("halt")

    return program
