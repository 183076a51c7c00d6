/**
 * Typed access to the GeoAgent server extension's REST API (`/geoagent/...`).
 *
 * Every request goes through `ServerConnection.makeRequest` so that the
 * token, the XSRF cookie and the base URL of the running Jupyter server are
 * handled exactly as JupyterLab's own services handle them.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import type { IndexState, Status } from './runs/rest.generated';

/** Namespace of every GeoAgent route on the Jupyter server. */
export const API_NAMESPACE = 'geoagent';

/** The knowledge index's state, as `GET /geoagent/status` reports it. */
export type IIndexState = IndexState;

/** Body of `GET /geoagent/status`. */
export type IStatus = Status;

/**
 * Call a GeoAgent route and parse its JSON answer.
 *
 * @param endPoint path below `/geoagent/` (e.g. `status`)
 * @param init fetch options (method, body, ...)
 * @param settings server settings; the default ones talk to the server that
 *   served JupyterLab. Tests pass settings whose `fetch` is a mock.
 * @throws ServerConnection.ResponseError with the server's JSON `message`
 *   (or the HTTP status) when the answer is not 2xx, and
 *   ServerConnection.NetworkError when the server cannot be reached.
 */
export async function requestAPI<T>(
  endPoint = '',
  init: RequestInit = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<T> {
  const url = URLExt.join(settings.baseUrl, API_NAMESPACE, endPoint);
  // makeRequest already turns a failed fetch into a NetworkError.
  const response = await ServerConnection.makeRequest(url, init, settings);

  const text = await response.text();
  let data: any = undefined;
  if (text.length > 0) {
    try {
      data = JSON.parse(text);
    } catch {
      // A 404 page from a server without GeoAgent is HTML, not JSON.
      data = undefined;
    }
  }
  if (!response.ok) {
    const message =
      data && typeof data.message === 'string' && data.message
        ? data.message
        : `${response.status} ${response.statusText}`.trim();
    throw new ServerConnection.ResponseError(response, message);
  }
  if (data === undefined) {
    throw new ServerConnection.ResponseError(
      response,
      `GeoAgent answered ${url} with a body that is not JSON`
    );
  }
  return data as T;
}

/** `GET /geoagent/status`: version, model, provider and index state. */
export function fetchStatus(
  settings?: ServerConnection.ISettings
): Promise<IStatus> {
  return requestAPI<IStatus>('status', { method: 'GET' }, settings);
}
