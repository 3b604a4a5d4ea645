import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTokenFile, tokenFileAuthenticator } from './token_file.js';

test('a token file record is token, user, uid and quoted comma-separated groups', () => {
  const tokens = parseTokenFile('abc,alice,1001,"dev,ops"\r\n  def,bob,,\nghi,carol,c-1\n');
  assert.deepEqual(tokens.get('abc'), {
    username: 'alice',
    uid: '1001',
    groups: ['dev', 'ops', 'system:authenticated'],
  });
  assert.deepEqual(tokens.get('def'), { username: 'bob', groups: ['system:authenticated'] });
  assert.deepEqual(tokens.get('ghi'), { username: 'carol', uid: 'c-1', groups: ['system:authenticated'] });
  assert.equal(tokens.size, 3);
});

test('an empty token is skipped, a duplicate token takes the later record, and short records are an error', () => {
  const tokens = parseTokenFile(',nobody,0\nt,first,1\nt,second,2\n');
  assert.equal(tokens.size, 1);
  assert.equal(tokens.get('t')?.username, 'second');
  assert.throws(() => parseTokenFile('t,onlyuser\n', 'f.csv'), /f.csv' must have at least 3 columns/);
});

test("the authenticator answers for the file's tokens only", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-tokens-'));
  try {
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'secret-token,admin-user,42,"system:masters"\n');
    const auth = tokenFileAuthenticator(file);
    assert.equal((await auth('secret-token'))?.username, 'admin-user');
    assert.equal(await auth('other'), undefined);
    assert.throws(() => tokenFileAuthenticator(join(dir, 'missing.csv')), /ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
