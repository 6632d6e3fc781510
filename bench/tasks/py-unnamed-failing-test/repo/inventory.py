class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, count=1):
        self.items[name] = self.items.get(name, 0) + count

    def remove(self, name, count=1):
        """Remove count items; never go below zero."""
        self.items[name] = self.items.get(name, 0) - count

    def count(self, name):
        return self.items.get(name, 0)
