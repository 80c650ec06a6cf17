-- wrk's script for scripts/bench_read.py: each request the next path of the file WRK_PATHS
-- names, in turn (each thread from the first); at the end, one line of JSON for the bench.
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do
  paths[#paths + 1] = line
end
local sent = 0

request = function()
  sent = sent + 1
  return wrk.format("GET", paths[(sent - 1) % #paths + 1])
end

done = function(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "p50_us": %d, "p99_us": %d, "max_us": %d, ' ..
    '"not_2xx_3xx": %d, "transport_errors": %d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    latency.max, errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
