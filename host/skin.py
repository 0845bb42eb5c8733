# The handheld's colours, for every host that draws it (the desktop window and GIFs,
# the browser page): one place, so both show the same device. RGB tuples.

OFF = (6, 10, 18)         # an unlit OLED pixel
ON = (196, 228, 255)      # a lit one (a white SSD1306 has a cool tint)
BODY = (44, 47, 54)
BODY_EDGE = (70, 74, 84)
GLASS = (0, 0, 0)
LETTERBOX = (18, 19, 22)
BUTTON_IDLE = (120, 32, 40)
BUTTON_LIT = (255, 214, 64)
BUTTON_RING = (20, 20, 24)
LABEL = (190, 194, 204)
LABEL_DIM = (130, 134, 144)
