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
# Migrations on start, then gunicorn; whitenoise serves the static files.
CMD ["sh", "-c", "python manage.py migrate --noinput && exec gunicorn tournaments.wsgi:application --bind 0.0.0.0:8000 --worker-class gthread --threads 2 --workers ${WEB_CONCURRENCY:-4}"]
