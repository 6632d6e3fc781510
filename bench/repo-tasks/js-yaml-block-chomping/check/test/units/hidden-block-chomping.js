'use strict';
const { describe, it } = require('node:test');

const assert = require('assert');
const yaml = require('../..');

describe('Block scalar chomping indicators', function () {
  it('uses strip (-) when there is no trailing newline', function () {
    assert.strictEqual(yaml.dump('a\nb'), '|-\n  a\n  b\n');
  });

  it('uses clip (no indicator) for exactly one trailing newline', function () {
    assert.strictEqual(yaml.dump('a\nb\n'), '|\n  a\n  b\n');
  });

  it('uses keep (+) for several trailing newlines', function () {
    assert.strictEqual(yaml.dump('a\nb\n\n'), '|+\n  a\n  b\n\n');
  });

  it('round-trips literal and folded strings', function () {
    const long = 'word '.repeat(30).trim();
    const samples = [
      'x\ny', 'x\ny\n', 'x\ny\n\n', 'x\ny\n\n\n', '\n', 'one\n',
      long + '\n' + long, long + '\n' + long + '\n', long + '\n' + long + '\n\n'
    ];
    for (const s of samples) {
      assert.strictEqual(yaml.load(yaml.dump(s)), s, JSON.stringify(s));
      assert.strictEqual(yaml.load(yaml.dump({ key: s })).key, s, JSON.stringify(s));
    }
  });
});
