/**
 * The service kit (issue 10): one way to define, build and start a service, and the shared
 * fastify plugins every service (the gateway included) is built from.
 */
export { defineService, buildService, serviceStart, type ServiceDefinition, type ServiceContext, type BuiltService, type BackgroundStart } from './service.js';
export { DomainError, isDomainError, statusOf, invalidInput, notFoundError, COMMON_ERRORS, type ErrorTable, type CommonErrorCode } from './domain-error.js';
export { errorsPlugin, toErrorResponse, type ErrorResponse } from './errors.js';
export { principalPlugin, requirePrincipal, requireRole } from './principal.js';
export { healthPlugin, type ReadinessCheck, type ReadinessDetail, type HealthRegistry } from './health.js';
export { metricsPlugin } from './metrics.js';
