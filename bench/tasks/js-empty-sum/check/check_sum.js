const assert = require("assert");
const { sum, average } = require("./src/sum.js");
assert.strictEqual(sum([]), 0);
assert.strictEqual(sum([1, 2, 3]), 6);
assert.strictEqual(average([2, 4]), 3);
assert.strictEqual(average([]), 0);
console.log("ok");
