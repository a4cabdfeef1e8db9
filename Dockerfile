# prefetchd in a container: a release build on Debian 12 (bookworm), then a slim Debian 12 image with
# only the binary, the shared libraries it links and a non-root user.
#
#   docker build -t prefetchd:0.1.0 .
#   docker run --rm -v "$PWD/jobs:/etc/prefetchd:ro" -v prefetchd-cache:/var/cache/prefetchd \
#       prefetchd:0.1.0 run /etc/prefetchd/catalog.yaml --progress never
#
# The tag is the version `prefetchd --version` prints; deploy/kubernetes/ names this image by it.
# This file has not been built by the test suite: the machines it runs on have no container engine.
# What the suite checks instead (Tests/PrefetchKitTests/Deploy/DockerfileTests.swift): every Debian
# runtime package below exists, each C library Package.swift links (its -dev package) has its runtime
# package here, and every shared library the built binary needs comes from a package here or from
# the base image.

# --- build ------------------------------------------------------------------------------------------
FROM swift:6.3-bookworm AS build
WORKDIR /src
# The -dev packages Package.swift's system libraries name (scripts/bootstrap installs them).
COPY scripts/bootstrap scripts/bootstrap
RUN scripts/bootstrap && rm -rf /var/lib/apt/lists/*
COPY Package.swift ./
COPY Sources Sources
COPY Tests Tests
COPY fuzz fuzz
# The Swift runtime and Foundation linked in; the C libraries stay shared (Debian's, below).
RUN swift build -c release --static-swift-stdlib --product prefetchd \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/prefetchd" /out/usr/local/bin/prefetchd

# --- run --------------------------------------------------------------------------------------------
FROM debian:12-slim
# The runtime packages of Package.swift's -dev packages, and the CA certificates for https.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ca-certificates \
        libcurl4 \
        libyaml-0-2 \
        libpng16-16 \
        libjpeg62-turbo \
        libsqlite3-0 \
        libssl3 \
        libxxhash0 \
        libidn2-0 \
        zlib1g \
        libbrotli1 \
        libgif7 \
        libwebp7 \
        libwebpdemux2 \
        libwebpmux3 \
        libavif15 \
        libjxl0.7 \
        libvips42 \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --home-dir /var/cache/prefetchd --shell /usr/sbin/nologin prefetchd \
    && install -d -o prefetchd -g prefetchd -m 0750 /var/cache/prefetchd
COPY --from=build /out/ /
COPY README.md docs/ /usr/local/share/doc/prefetchd/
USER 10001:10001
ENV PREFETCHD_CACHE_DIR=/var/cache/prefetchd
WORKDIR /var/cache/prefetchd
ENTRYPOINT ["/usr/local/bin/prefetchd"]
CMD ["--help"]
