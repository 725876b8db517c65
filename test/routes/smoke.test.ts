import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

describe('walk-through: create a session, write, read, list', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(() => t.close());

  it('writes, reads back and lists a file', async () => {
    const session = await t.createSession({ profile: 'read-write' });
    const write = await t.call(session, 'write_file', { path: 'src/hello.txt', content: 'hi\nthere\n' });
    expect(write.status).toBe(200);
    expect(write.body.data).toEqual({ path: 'src/hello.txt', bytesWritten: 9, created: true, dryRun: false });
    const read = await t.call(session, 'read_file', { path: '/src/hello.txt' });
    expect(read.body.data).toMatchObject({ content: 'hi\nthere', totalLines: 2, truncated: false });
    const list = await t.call(session, 'list_directory', { depth: 2 });
    expect(list.body.data.entries).toEqual([
      { path: 'src', type: 'directory', size: 0 },
      { path: 'src/hello.txt', type: 'file', size: 9 },
    ]);
  });
});
