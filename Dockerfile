# A class server for the Embedding Explorer: CPU-only torch, run as an unprivileged user.
#   docker build -t embedding-explorer .
#   docker run --rm -p 8501:8501 --memory 8g embedding-explorer
# README, "Run it for a class", says how a teacher uses it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The requirements alone first, so editing the app's code does not reinstall torch.
WORKDIR /app
COPY requirements.txt requirements-cpu.txt ./
RUN pip install --no-cache-dir -r requirements-cpu.txt \
    && python -c "import torch; assert not torch.version.cuda, torch.version.cuda"

# The code stays owned by root: the app only reads it.
COPY . .
RUN groupadd --gid 10001 explorer \
    && useradd --create-home --uid 10001 --gid 10001 --shell /usr/sbin/nologin explorer
USER 10001:10001

EXPOSE 8501
# Streamlit answers "ok" here once it serves pages. slim images have no curl: Python asks instead.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4); sys.exit(r.read() != b'ok')"]

CMD ["python", "-m", "streamlit", "run", "app.py", "--server.address", "0.0.0.0", "--server.port", "8501", "--server.headless", "true"]
