from slug import slugify

assert slugify("Hello, World!") == "hello-world"
assert slugify("  Rust & Python 3 ") == "rust-python-3"
assert slugify("a") == "a"
assert slugify("--x--y--") == "x-y"
print("ok")
