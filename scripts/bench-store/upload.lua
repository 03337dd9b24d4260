-- wrk: PUT /v1/runs/{uuid} with the same one-hour FIT file under a new uuid each time.
-- wrk -s upload.lua URL -- TOKEN FILE [FIRST-THREAD] (another FIRST-THREAD for a second wrk beside
-- the first, so that their uuids differ)
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("tid", threads)
end

function init(args)
    token = args[1]
    tid = tid + tonumber(args[3] or "0")
    local f = assert(io.open(args[2], "rb"))
    body = f:read("*a")
    f:close()
    counter = 0
    headers = { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/vnd.ant.fit" }
end

function request()
    counter = counter + 1
    local uuid = string.format("%08x-0000-4000-8000-%012x", tid, counter)
    return wrk.format("PUT", "/v1/runs/" .. uuid, headers, body)
end

function done(summary, latency, requests)
    io.write(string.format("RESULT requests=%d errors=%d seconds=%.3f p50_ms=%.2f p99_ms=%.2f\n",
        summary.requests, summary.errors.status + summary.errors.connect + summary.errors.read
            + summary.errors.write + summary.errors.timeout,
        summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
