-- Sends the benchmark's token with every request, as Terraform sends its credentials.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
