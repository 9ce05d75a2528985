/**
 * A stand-in package registry on 127.0.0.1 for the network-policy tests: it answers every request with one line
 * naming the path, and keeps what it served (method and path), so a test can tell what the sandbox let through.
 */
import http from 'node:http';
import type net from 'node:net';

export interface RegistryServer {
  readonly port: number;
  /** `GET /path` for each request served, in order (a test may empty it between cases). */
  readonly served: string[];
  close(): Promise<void>;
}

export async function startRegistry(): Promise<RegistryServer> {
  const served: string[] = [];
  const server = http.createServer((req, res) => {
    served.push(`${req.method} ${req.url}`);
    res.end(`registry answer for ${req.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
