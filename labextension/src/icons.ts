/**
 * GeoAgent's icons. `jp-icon3` classes let JupyterLab recolour the SVG for the
 * light and dark themes, so one SVG serves both.
 */
import { LabIcon } from '@jupyterlab/ui-components';

/** A globe with a spark: geospatial + agent. */
const GEOAGENT_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <path d="M10.5 3a8.5 8.5 0 1 0 8.45 9.42h-2.02A6.5 6.5 0 0 1 5.6 14.7l1.9-1.1.9 1.55 1.7-.3.6-1.75-1.3-1.6 1.1-1.9-.9-1.6H7.4L6.3 6.9A6.47 6.47 0 0 1 10.5 5V3Z"/>
    <path d="M18 1.5l1.05 2.95L22 5.5l-2.95 1.05L18 9.5l-1.05-2.95L14 5.5l2.95-1.05L18 1.5Z"/>
  </g>
</svg>`;

export const geoagentIcon = new LabIcon({
  name: 'geoagent-ext:geoagent',
  svgstr: GEOAGENT_SVG
});
