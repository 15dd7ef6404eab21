FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY tournaments tournaments
COPY scoring scoring
RUN pip install --no-cache-dir .
COPY . .
# Static files are built the way they are served: DEBUG off, so the manifest is written
# (whitenoise's manifest storage needs it). The key only satisfies the settings here.
RUN DEBUG=0 SECRET_KEY=build-only-never-used-at-run-time python manage.py collectstatic --noinput
EXPOSE 8000
# Migrations on start, then gunicorn (uvicorn workers: live pages' event streams, pages in
# a thread pool, tournaments/asgi.py); whitenoise serves the static files.
CMD ["sh", "-c", "python manage.py migrate --noinput && exec gunicorn tournaments.asgi:application --bind 0.0.0.0:8000 --worker-class uvicorn_worker.UvicornWorker --workers ${WEB_CONCURRENCY:-4}"]
