// A supertest request whose response body is collected as raw bytes (res.body is a Buffer), whatever
// its content type: downloads of files and archives.
import type supertest from 'supertest';

export const asBytes = (test: supertest.Test): supertest.Test =>
  test.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
