import * as assert from 'assert/strict';
import { extractCode, fencedBlocks } from '../src/extractCode';

describe('code extraction from answers', () => {
  it('takes the fenced block', () => {
    const answer = 'Here is a version:\n\n```python\ndef add(a, b):\n    return a + b\n```\n\nIt adds.';
    assert.equal(extractCode(answer, 'add'), 'def add(a, b):\n    return a + b\n');
  });

  it('prefers the block that names the function over a longer one', () => {
    const answer = [
      '```python',
      'import math',
      'import os',
      'import sys',
      'print("a long preamble that does not define it")',
      '```',
      'and then:',
      '```py',
      'def area(r):',
      '    return math.pi * r * r',
      '```',
    ].join('\n');
    assert.equal(extractCode(answer, 'Shape.area'), 'def area(r):\n    return math.pi * r * r\n');
  });

  it('takes the longest block when none names the function', () => {
    const answer = '```\nx = 1\n```\n```python\ndef f():\n    return 2\n```';
    assert.equal(extractCode(answer, 'missing'), 'def f():\n    return 2\n');
  });

  it('uses the whole answer when there is no fence', () => {
    assert.equal(extractCode('def f():\n    return 1\n\n', 'f'), 'def f():\n    return 1\n');
  });

  it('keeps a block cut off before its closing fence', () => {
    assert.equal(extractCode('```python\ndef f():\n    return 1\n', 'f'), 'def f():\n    return 1\n');
  });

  it('reads tilde fences, CRLF line ends and longer fences holding ``` inside', () => {
    assert.deepEqual(fencedBlocks('~~~python\r\ndef f():\r\n    pass\r\n~~~'), [{ language: 'python', code: 'def f():\n    pass' }]);
    const nested = '````markdown\nuse ```python``` fences\n````';
    assert.deepEqual(fencedBlocks(nested), [{ language: 'markdown', code: 'use ```python``` fences' }]);
  });

  it('gives undefined for an empty answer or empty blocks only', () => {
    assert.equal(extractCode('   \n', 'f'), undefined);
    assert.equal(extractCode('```python\n\n```', 'f'), undefined);
  });

  it('does not take a name that merely contains the function name', () => {
    const answer = '```python\ndef addition(a, b):\n    return a + b + 0\n```\n```python\ndef add(a, b):\n    return a + b\n```';
    assert.equal(extractCode(answer, 'add'), 'def add(a, b):\n    return a + b\n');
  });
});
