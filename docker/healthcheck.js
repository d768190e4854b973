// HEALTHCHECK probe: GET /health on the admin listener (no curl in the image).
const configured = process.env.KAFKA_ADMIN_LISTENER || 'http://0.0.0.0:9644';
const url = new URL('/health', configured);
if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = '127.0.0.1';
fetch(url, { signal: AbortSignal.timeout(2500) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
