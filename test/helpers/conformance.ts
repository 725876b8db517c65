// Every response the API tests provoke is checked against the OpenAPI document the app serves: its
// status must be declared for the operation, and a JSON body must match the declared schema. So the
// document cannot drift from what the service sends. startApp installs it; close() fails the test file
// on any violation. Routes the document hides (Swagger UI, unknown tool names) are not checked.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };
type Document = { paths: Record<string, Record<string, Operation>> };

const pointerPart = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

export class ResponseConformance {
  readonly violations: string[] = [];
  checked = 0;
  private document: Document | null = null;
  private ajv: Ajv2020 | null = null;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly app: FastifyInstance) {}

  install(): void {
    this.app.addHook('onSend', async (request, reply, payload) => {
      const route = request.routeOptions.url;
      if (route) {
        try {
          this.check(
            request.method,
            route,
            reply.statusCode,
            String(reply.getHeader('content-type') ?? ''),
            payload,
          );
        } catch (err) {
          this.violations.push(`${request.method} ${route}: checker failed: ${(err as Error).message}`);
        }
      }
      return payload;
    });
  }

  private load(): { document: Document; ajv: Ajv2020 } {
    if (!this.document || !this.ajv) {
      this.document = structuredClone(this.app.swagger()) as unknown as Document;
      this.ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats.default(this.ajv);
      this.ajv.addSchema(this.document as object, 'openapi');
    }
    return { document: this.document, ajv: this.ajv };
  }

  private check(method: string, route: string, status: number, contentType: string, payload: unknown): void {
    const { document, ajv } = this.load();
    const path = route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const verb = method.toLowerCase();
    const operation = document.paths[path]?.[verb];
    if (!operation) return;
    this.checked++;
    const responses = operation.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
    if (!key) {
      this.violations.push(`${method} ${path} answered ${status}, which the document does not declare`);
      return;
    }
    const schema = responses[key]?.content?.['application/json']?.schema;
    if (!schema || !contentType.includes('application/json') || typeof payload !== 'string') return;
    const ref = `openapi#/paths/${pointerPart(path)}/${verb}/responses/${key}/content/application~1json/schema`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = ajv.getSchema(ref);
      if (!validate) throw new Error(`no schema at ${ref}`);
      this.validators.set(ref, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      this.violations.push(`${method} ${path} ${status}: body is not JSON`);
      return;
    }
    if (!validate(body)) {
      const problems = (validate.errors ?? [])
        .slice(0, 3)
        .map((e) => `${e.instancePath || '/'} ${e.message}`)
        .join('; ');
      this.violations.push(`${method} ${path} ${status}: ${problems} in ${payload.slice(0, 200)}`);
    }
  }
}
