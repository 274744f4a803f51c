/** The HTML shell of /docs; every asset URL is local to the gateway. It links both machine-readable documents. */
export function docsPage(documents: { openApiPath: string; asyncApiPath: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Timetable API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <nav>
    <a href="${documents.openApiPath}">OpenAPI 3.1 document (HTTP routes)</a> ·
    <a href="${documents.asyncApiPath}">AsyncAPI 3.0 document (Kafka topics and their payload schemas)</a>
  </nav>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/initializer.js"></script>
</body>
</html>
`;
}

export function docsInitializer(openApiPath: string): string {
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(openApiPath)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
};
`;
}
