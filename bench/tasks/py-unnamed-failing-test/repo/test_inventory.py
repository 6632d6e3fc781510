from inventory import Inventory


def test_remove_never_negative():
    inv = Inventory()
    inv.add("apple", 2)
    inv.remove("apple", 5)
    assert inv.count("apple") == 0


def test_add():
    inv = Inventory()
    inv.add("pear")
    inv.add("pear", 2)
    assert inv.count("pear") == 3


if __name__ == "__main__":
    test_remove_never_negative()
    test_add()
    print("ok")
