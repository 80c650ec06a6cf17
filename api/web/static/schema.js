// The /schema page: Swagger UI over our own OpenAPI document, started from this file (the
// page carries no inline script) and with the online validator off (nothing leaves the site).
"use strict";
window.addEventListener("load", () => {
  window.SwaggerUIBundle({
    url: "/schema/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
  });
});
