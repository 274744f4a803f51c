export { createGatewayApp, type GatewayDeps } from './create-gateway-app.js';
export { gatewayEdgeFields, loadGatewayConfig, parseTrustProxy, type GatewayConfig, type TrustProxy } from './config.js';
export { HttpKeyVerifier } from './features/authentication/http-key-verifier.js';
export { API_KEY_PREFIX } from './features/authentication/authenticate-api-key.js';
export { buildOpenApiDocument, type OpenApiDocument } from './features/openapi/openapi-document.js';
export { buildAsyncApiDocument, type AsyncApiDocument, type AsyncApiMessage } from './features/asyncapi/asyncapi-document.js';
export { createProxyRoutes, type UpstreamUrls } from './features/routing/proxy-routes.js';
export { gatewayService, type GatewaySettings } from './gateway-service.js';
export type { GatewayOverrides } from './gateway-process-overrides.js';
