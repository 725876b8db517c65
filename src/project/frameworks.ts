// Dependency names that identify a framework or test runner, per ecosystem.

export const JS_FRAMEWORKS: Readonly<Record<string, string>> = {
  react: 'React',
  next: 'Next.js',
  vue: 'Vue',
  nuxt: 'Nuxt',
  svelte: 'Svelte',
  '@sveltejs/kit': 'SvelteKit',
  '@angular/core': 'Angular',
  express: 'Express',
  fastify: 'Fastify',
  koa: 'Koa',
  hono: 'Hono',
  '@nestjs/core': 'NestJS',
  electron: 'Electron',
  'react-native': 'React Native',
  vite: 'Vite',
  webpack: 'webpack',
  vitest: 'Vitest',
  jest: 'Jest',
  mocha: 'Mocha',
  '@playwright/test': 'Playwright',
  cypress: 'Cypress',
};

export const PYTHON_FRAMEWORKS: Readonly<Record<string, string>> = {
  django: 'Django',
  flask: 'Flask',
  fastapi: 'FastAPI',
  starlette: 'Starlette',
  pytest: 'pytest',
  sqlalchemy: 'SQLAlchemy',
  pandas: 'pandas',
  numpy: 'NumPy',
  torch: 'PyTorch',
  tensorflow: 'TensorFlow',
  celery: 'Celery',
};

export const GO_FRAMEWORKS: Readonly<Record<string, string>> = {
  'github.com/gin-gonic/gin': 'Gin',
  'github.com/labstack/echo': 'Echo',
  'github.com/gofiber/fiber': 'Fiber',
  'github.com/gorilla/mux': 'Gorilla mux',
  'github.com/go-chi/chi': 'chi',
  'github.com/spf13/cobra': 'Cobra',
  'github.com/stretchr/testify': 'testify',
};

export const RUST_FRAMEWORKS: Readonly<Record<string, string>> = {
  tokio: 'Tokio',
  'actix-web': 'Actix Web',
  axum: 'Axum',
  rocket: 'Rocket',
  serde: 'Serde',
  clap: 'clap',
  bevy: 'Bevy',
};

export const JAVA_FRAMEWORKS: Readonly<Record<string, string>> = {
  'spring-boot': 'Spring Boot',
  'org.springframework': 'Spring',
  quarkus: 'Quarkus',
  micronaut: 'Micronaut',
  'junit-jupiter': 'JUnit 5',
  junit: 'JUnit',
  testng: 'TestNG',
};

/** Frameworks whose names appear in a free-text manifest (pom.xml, build.gradle, go.mod, Cargo.toml). */
export function frameworksIn(text: string, table: Readonly<Record<string, string>>): [string, string][] {
  const found: [string, string][] = [];
  for (const [needle, name] of Object.entries(table)) {
    const pattern = new RegExp(
      `(^|[^A-Za-z0-9_.-])${needle.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}([^A-Za-z0-9_]|$)`,
      'm',
    );
    if (pattern.test(text) && !found.some(([, n]) => n === name)) found.push([needle, name]);
  }
  return found;
}
