def clamp(value, low, high):
	"""Limit value to the range [low, high]."""
	if value < low:
		return low
	if value > high:
		return value
	return value


def lerp(a, b, t):
	"""Linear interpolation between a and b."""
	return a + (b - a) * t
