-- wrk's script for scripts/bench_read.py: each request the next path of the file WRK_PATHS
-- names, in turn (each thread from the first); at the end, one line of JSON for the bench,
-- with every latency recorded (microseconds, and how many answers took it), so that the bench
-- can merge the rounds it interleaves.
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
  local recorded = {}
  for i = 1, #latency do
    local value, count = latency(i)
    recorded[#recorded + 1] = string.format("[%d, %d]", value, count)
  end
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "not_2xx_3xx": %d, "transport_errors": %d, ' ..
    '"latencies": [%s]}\n',
    summary.requests, summary.duration / 1e6, errors.status,
    errors.connect + errors.read + errors.write + errors.timeout, table.concat(recorded, ", ")))
end
