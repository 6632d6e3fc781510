from shapes import Rectangle, Square

assert Rectangle(2, 3).area() == 6
assert Square(4).area() == 16
assert Rectangle(2, 3).perimeter() == 10
print("ok")
