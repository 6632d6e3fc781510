'use strict';
const { describe, it } = require('node:test');

const assert = require('assert');
const yaml = require('../../');

describe('forceQuotes option', function () {
  const data = { name: 'value', count: 3, ok: true, nothing: null, list: [ 'a', 1 ], nested: { key: 'x' } };

  it('is off by default', function () {
    assert.strictEqual(yaml.dump(data),
      'name: value\ncount: 3\nok: true\nnothing: null\nlist:\n  - a\n  - 1\nnested:\n  key: x\n');
  });

  it('quotes every string value but not keys, numbers, booleans or nulls', function () {
    assert.strictEqual(yaml.dump(data, { forceQuotes: true }),
      "name: 'value'\ncount: 3\nok: true\nnothing: null\nlist:\n  - 'a'\n  - 1\nnested:\n  key: 'x'\n");
  });

  it('uses the quotingType quotes', function () {
    assert.strictEqual(yaml.dump({ a: 'b' }, { forceQuotes: true, quotingType: '"' }), 'a: "b"\n');
  });

  it('never writes block scalars', function () {
    assert.strictEqual(yaml.dump({ text: 'one\ntwo\n' }, { forceQuotes: true }), 'text: "one\\ntwo\\n"\n');
  });

  it('round-trips', function () {
    const sample = { s: 'plain text', multi: 'a\nb', quote: "it's", empty: '', n: '12' };
    assert.deepStrictEqual(yaml.load(yaml.dump(sample, { forceQuotes: true })), sample);
    assert.deepStrictEqual(yaml.load(yaml.dump(sample, { forceQuotes: true, quotingType: '"' })), sample);
  });
});
