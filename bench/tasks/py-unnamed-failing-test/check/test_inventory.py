from inventory import Inventory

inv = Inventory()
inv.add("apple", 2)
inv.remove("apple", 5)
assert inv.count("apple") == 0
inv.add("apple", 3)
inv.remove("apple", 1)
assert inv.count("apple") == 2
inv.add("pear")
inv.add("pear", 2)
assert inv.count("pear") == 3
print("ok")
