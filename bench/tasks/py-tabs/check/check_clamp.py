from mathx import clamp, lerp

assert clamp(5, 0, 3) == 3
assert clamp(-1, 0, 3) == 0
assert clamp(2, 0, 3) == 2
assert lerp(0, 10, 0.5) == 5
text = open("mathx.py").read()
assert "\t" in text and "    return" not in text, "indentation must stay tabs"
print("ok")
