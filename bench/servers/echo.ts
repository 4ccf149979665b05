/** The HTTP ceiling: a bare Express 5 JSON echo handler, nothing else. */
import express from 'express';
import { failed, serve } from './ipc.ts';

const app = express();
app.post('/echo', express.json(), (request, response) => {
  response.json(request.body);
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (!address || typeof address !== 'object') failed('no address');
  serve(`http://127.0.0.1:${address.port}/echo`, () => null, () => new Promise((resolve) => server.close(() => resolve())));
});
