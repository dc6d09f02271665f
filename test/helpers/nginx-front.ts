// The parts of an nginx configuration in front of burrowd that the several-nodes test and the
// bench's front-proxy script share with deploy/nginx.conf: nginx's temporary files under `dir`,
// and the location that passes requests, WebSockets and streams through to `upstream burrowd`.

/** nginx's temporary directories, all under `dir` (lines for an `http` block). */
export function nginxTempPaths(dir: string): string {
  return [
    ['client_body', 'body'],
    ['proxy', 'proxy'],
    ['fastcgi', 'fastcgi'],
    ['uwsgi', 'uwsgi'],
    ['scgi', 'scgi'],
  ]
    .map(([kind, sub]) => `  ${kind}_temp_path ${dir}/${sub};`)
    .join('\n')
}

/** `location /` passing everything to `upstream burrowd`, as deploy/nginx.conf does. */
export function burrowdLocation(readTimeout: string): string {
  return `    location / {
      proxy_pass http://burrowd;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout ${readTimeout};
    }`
}
