'use strict';
const { describe, it } = require('node:test');

const assert = require('assert');
const picomatch = require('..');
const scan = require('../lib/scan');

const parts = (pattern, options) => scan(pattern, { ...options, parts: true }).parts;

describe('hidden: scan parts and tokens', () => {
  it('splits a pattern into its path segments', () => {
    assert.deepStrictEqual(parts('foo/**/*'), ['foo', '**', '*']);
    assert.deepStrictEqual(parts('a/b/c/d/e.txt'), ['a', 'b', 'c', 'd', 'e.txt']);
    assert.deepStrictEqual(parts('**/*.js'), ['**', '*.js']);
    assert.deepStrictEqual(parts('a/{b,c}/d/*'), ['a', '{b,c}', 'd', '*']);
    assert.deepStrictEqual(parts('foo/bar/'), ['foo', 'bar']);
    assert.deepStrictEqual(parts('foo/*/bar/**/baz.js'), ['foo', '*', 'bar', '**', 'baz.js']);
  });

  it('leaves prefixes out of the parts', () => {
    assert.deepStrictEqual(parts('./foo/bar/*.js'), ['foo', 'bar', '*.js']);
    assert.deepStrictEqual(parts('!./foo/*.js'), ['foo', '*.js']);
    assert.deepStrictEqual(parts('!foo/bar/*'), ['foo', 'bar', '*']);
  });

  it('gives each token its own segment', () => {
    const state = scan('./foo/bar/*.js', { tokens: true, parts: true });
    assert.deepStrictEqual(state.tokens.map(t => t.value), ['./', 'foo', 'bar', '*.js']);
    assert.strictEqual(state.maxDepth, 3);
    assert.deepStrictEqual(state.slashes, [1, 5, 9]);

    const deep = scan('a/b/c/d/e.txt', { tokens: true, parts: true });
    assert.deepStrictEqual(deep.tokens.map(t => t.value), ['a', 'b', 'c', 'd', 'e.txt']);
    assert.strictEqual(deep.maxDepth, 5);

    const globstar = scan('foo/**/*', { tokens: true, parts: true });
    assert.deepStrictEqual(globstar.tokens.map(t => t.value), ['foo', '**', '*']);
    assert.strictEqual(globstar.maxDepth, Infinity);
  });

  it('keeps base and glob unchanged', () => {
    const state = picomatch.scan('foo/bar/*/*.js', { parts: true });
    assert.strictEqual(state.base, 'foo/bar');
    assert.strictEqual(state.glob, '*/*.js');
    assert.deepStrictEqual(state.parts, ['foo', 'bar', '*', '*.js']);
  });
});
