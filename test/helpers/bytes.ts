// A request whose response body is collected as raw bytes (res.body is a Buffer), whatever its content
// type: downloads of files and archives. Works on a supertest request and on an inject request.
import type supertest from 'supertest';
import { InjectRequest } from './api.js';

export function asBytes(test: supertest.Test): supertest.Test;
export function asBytes(test: InjectRequest): InjectRequest;
export function asBytes(test: supertest.Test | InjectRequest): supertest.Test | InjectRequest {
  if (test instanceof InjectRequest) return test.bytes();
  return test.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
}
