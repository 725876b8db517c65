// The transfer operations (ops/transfer.ts) inside the runtime: each *Open makes a stream in the
// runtime's table, and the stream* operations feed, drain, finish or drop it.
import { toolgateError } from '../../lib/errors.js';
import type { TransferOps } from '../ops/transfer.js';
import { extractSink } from './archive-extract.js';
import { packSource } from './archive-pack.js';
import { fileSink, fileSource, openWithDigest } from './file-transfer.js';
import { reply, type Handlers } from './handler.js';
import type { StreamTable } from './streams.js';

export function transferHandlers(streams: StreamTable): Handlers<Omit<TransferOps, 'gitClone'>> {
  return {
    async uploadOpen({ path, expectedSha256, maxBytes }, _payload, ctx) {
      const target = await ctx.paths.resolve(path);
      const sink = await fileSink(target.absolute, target.relative, { expectedSha256, maxBytes }, ctx);
      return reply({
        stream: streams.add(sink),
        relative: target.relative,
        fd: sink.fd,
        allowance: sink.allowance,
      });
    },

    async downloadOpen({ path, start, end }, _payload, { paths, signal }) {
      const target = await paths.resolve(path);
      const { source, stat, sha256 } = await fileSource(
        target.absolute,
        target.relative,
        { start, end },
        signal,
      );
      return reply({
        stream: streams.add(source),
        relative: target.relative,
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        sha256,
      });
    },

    async fileDigest({ path }, _payload, { paths, signal }) {
      const target = await paths.resolve(path);
      const { handle, stat, sha256 } = await openWithDigest(target.absolute, target.relative, signal);
      await handle.close();
      return reply({ relative: target.relative, size: stat.size, mtimeMs: stat.mtimeMs, sha256 });
    },

    async extractOpen({ path, limits }, _payload, ctx) {
      const target = await ctx.paths.resolve(path);
      const sink = await extractSink(target, limits, ctx);
      return reply({ stream: streams.add(sink), relative: target.relative });
    },

    async packOpen({ path, format, gitignore }, _payload, { paths }) {
      const target = await paths.resolve(path);
      const source = await packSource(target, paths.root, format, gitignore);
      return reply({ stream: streams.add(source), relative: target.relative });
    },

    async streamWrite({ stream }, payload) {
      streams.accept(stream, payload);
      await streams.run(stream, 'sink', (sink) => sink.write(payload));
      return reply({ bytes: payload.length });
    },

    async streamRead({ stream, maxBytes }) {
      const { chunk, eof } = await streams.run(stream, 'source', (source) => source.read(maxBytes));
      if (eof) await streams.close(stream);
      return reply({ eof }, chunk);
    },

    async streamFinish({ stream, written }) {
      const result = await streams.run(stream, 'sink', (sink) => {
        if (written) {
          if (!sink.adopt)
            throw toolgateError('BAD_REQUEST', `Stream ${stream} takes no bytes written past it`);
          sink.adopt(written);
        }
        return sink.finish();
      });
      streams.forget(stream);
      return reply(result);
    },

    async streamClose({ stream }) {
      await streams.close(stream);
      return reply({});
    },
  };
}
