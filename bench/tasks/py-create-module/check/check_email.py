from validators import is_email

assert is_email("a@b.co")
assert not is_email("ab.co")
assert not is_email("@b.co")
assert not is_email("a@bco")
assert not is_email("a@@b.co")
print("ok")
