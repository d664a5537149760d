import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiRoute, routeComponents, successSchema } from './api-route.js';
import { componentSchemas } from './openapi-components.js';

const streams = z.object({ streams: z.array(z.object({ streamPrefix: z.string() })) });
const route = apiRoute({
  method: 'get',
  path: '/coord/v1/monitoring/example-streams',
  operationId: 'exampleStreams',
  tag: 'Monitoring',
  summary: 'A route whose answer schema is declared with it',
  access: 'READ',
  success: { status: 200, description: 'Streams', body: { schema: streams, name: 'ExampleStreams' } },
  errors: [],
});

describe('route-declared response schemas', () => {
  it('validate the answer and join the document as a component of their name', () => {
    expect(successSchema(route.success.body)).toBe(streams);
    expect(routeComponents([route])).toEqual({ ExampleStreams: streams });
    const schemas = componentSchemas(routeComponents([route]));
    expect(schemas.ExampleStreams).toMatchObject({ type: 'object', required: ['streams'] });
    expect(schemas.GroupResponse).toBeDefined();
  });

  it('may not take the name of a shared component', () => {
    expect(() => componentSchemas({ GroupResponse: streams })).toThrow(/already used: GroupResponse/);
  });
});
