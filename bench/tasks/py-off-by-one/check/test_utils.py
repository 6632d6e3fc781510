from utils import first_n, last_n

assert last_n([1, 2, 3, 4], 2) == [3, 4]
assert last_n([1, 2, 3], 0) == []
assert last_n([5], 1) == [5]
assert first_n([1, 2, 3], 2) == [1, 2]
print("ok")
