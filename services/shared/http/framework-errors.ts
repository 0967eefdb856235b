/**
 * `{error, code}` answers for what fastify and Node's HTTP parser reject before a route runs
 * (DESIGN.md "Errors"): malformed URLs and other framework errors, and client errors at the
 * connection level (headers too large, malformed requests).
 */
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Socket } from 'node:net';

/** fastify `frameworkErrors`: a malformed URL or similar becomes 400 `invalid_request`. */
export function frameworkErrors(err: Error & { code?: string }, _req: FastifyRequest, reply: FastifyReply): void {
  const message = err.code === 'FST_ERR_BAD_URL' ? 'the request URL is not valid (bad percent-encoding)' : 'the request could not be parsed';
  void reply.code(400).type('application/json').send({ error: message, code: 'invalid_request' });
}

/** fastify `clientErrorHandler`: connection-level parse errors answered with JSON, then closed. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) { socket.destroy(); return; }
  const [status, text, body] = err.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large', { error: 'request headers are too large', code: 'header_too_large' }]
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', { error: 'request timed out', code: 'request_timeout' }]
      : [400, 'Bad Request', { error: 'malformed HTTP request', code: 'invalid_request' }];
  const json = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`);
}

/** The two options, to spread into `Fastify({...})`. */
export const errorOptions: Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> = {
  frameworkErrors: frameworkErrors as unknown as FastifyServerOptions['frameworkErrors'],
  clientErrorHandler,
};
