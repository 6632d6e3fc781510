from prices import total, with_tax

assert total([(2, 3), (5, 1)]) == 11
assert total([]) == 0
assert with_tax(10) == 12.0
data = open("prices.py", "rb").read()
assert data.count(b"\r\n") >= 10 and data.count(b"\n") == data.count(b"\r\n"), "line endings must stay CRLF"
print("ok")
