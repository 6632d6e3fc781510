from stats import mean, spread

assert mean([]) == 0.0
assert mean([1, 2, 3]) == 2
assert spread([3, 9]) == 6
print("ok")
