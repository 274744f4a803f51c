export { createGatewayApp, type GatewayDeps } from './create-gateway-app.js';
