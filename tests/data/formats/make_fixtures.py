#!/usr/bin/env python3
"""Makes the image fixtures that gdk-pixbuf cannot write (see README.md).

Needs Pillow (pip install pillow); run from this folder. The product never
uses Pillow: these files are committed, and tests/test_data_formats.c reads
them through gdk-pixbuf.
"""
from PIL import Image

# Two frames: red, then blue. A reader that takes the first frame sees red.
red = Image.new("RGB", (8, 8), (255, 0, 0))
blue = Image.new("RGB", (8, 8), (0, 0, 255))
red.save("anim.gif", save_all=True, append_images=[blue], duration=100, loop=0)

# CMYK JPEG of solid red (C=0, M=255, Y=255, K=0), with Pillow's Adobe marker.
Image.new("CMYK", (8, 8), (0, 255, 255, 0)).save("cmyk.jpg", quality=95)

# Stored 16 wide x 8 tall, left half black, right half white, with EXIF
# orientation 6 (turn 90 degrees clockwise to view): upright it is 8 wide x
# 16 tall, top half black, bottom half white.
img = Image.new("L", (16, 8), 255)
img.paste(0, (0, 0, 8, 8))
exif = Image.Exif()
exif[0x0112] = 6
img.convert("RGB").save("exif6.jpg", quality=95, exif=exif.tobytes())

# 16-bit grey PNG, every sample 0xC0C0 (192 in 8 bits).
Image.new("I;16", (8, 8), 0xC0C0).save("grey16.png")

# Lossless WebP and an uncompressed TGA of one solid colour each.
Image.new("RGB", (8, 8), (0, 128, 255)).save("solid.webp", lossless=True)
Image.new("RGB", (8, 8), (10, 200, 30)).save("solid.tga")
