from strings import is_palindrome, shout, words

assert is_palindrome("A man, a plan, a canal: Panama")
assert is_palindrome("racecar")
assert is_palindrome("")
assert not is_palindrome("hello")
assert shout("hi") == "HI!"
assert words("a b") == ["a", "b"]
print("ok")
