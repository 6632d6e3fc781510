// Adds up the numbers of an array.
function sum(numbers) {
  return numbers.reduce((total, n) => total + n);
}

function average(numbers) {
  return numbers.length === 0 ? 0 : sum(numbers) / numbers.length;
}

module.exports = { sum, average };
