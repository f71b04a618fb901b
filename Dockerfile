# A browser server for `theme`: the one render environment that local runs and CI share.
#   docker compose up -d browser   →   ws://localhost:3000/theme
#
# Playwright's image brings its own Chromium (in /ms-playwright) and that Chromium's system
# libraries, so every machine renders with the same browser build, fonts and flags.
# The version appears twice below (tag and pip pin) and must stay equal: the image's Chromium
# is the one its Playwright version expects, and a client can only connect to a server of its
# own major.minor Playwright version.
#
# No digest has been pinned yet. To pin one (recommended: a tag can be re-pushed), run
#   docker buildx imagetools inspect mcr.microsoft.com/playwright/python:v1.65.0-noble --format '{{json .Manifest.Digest}}'
# and append it: FROM mcr.microsoft.com/playwright/python:v1.65.0-noble@sha256:<digest>
FROM mcr.microsoft.com/playwright/python:v1.65.0-noble

# The emoji font the baselines were made with, and fontconfig to find it: the same packages
# `theme setup` installs (theme/provision.py, APT_FONTS).
RUN apt-get update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      fontconfig fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/theme
# Only what `pip install .` reads: editing the article or the SCSS does not rebuild the image.
COPY pyproject.toml README.md ./
COPY theme/ theme/
# The image ships browsers but not the Python package: pin it to the image's version, or pip
# would take the newest Playwright, whose Chromium is not in the image. The check makes the
# build fail, not the first run, when theme would not find Playwright's Chromium.
RUN python3 -m pip install --no-cache-dir . "playwright==1.65.0" \
 && python3 -c "from theme.capture import find_browser; print(find_browser().describe())"

# Chromium needs no root, and a server anyone on the network may drive should not have it.
USER pwuser
EXPOSE 3000
# 0.0.0.0: the default 127.0.0.1 would be the container's own loopback, unreachable through
# the published port. A fixed path so compose and CI know the endpoint; publish the port
# on trusted interfaces only (compose.yaml binds 127.0.0.1).
ENTRYPOINT ["theme", "browser", "serve", "--host", "0.0.0.0", "--port", "3000", "--path", "/theme"]
