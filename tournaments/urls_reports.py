"""URL patterns for players' own reports and self-drop (issue 14), and the organizer's
reports to check. Included at the site root: full paths here."""

from django.urls import URLPattern, path

from tournaments.views import reports

urlpatterns: list[URLPattern] = [
    path("p/<str:token>/report/", reports.report, name="private_report"),
    path("p/<str:token>/report/panel/", reports.panel, name="private_report_panel"),
    path("p/<str:token>/confirm/", reports.confirm, name="private_confirm"),
    path("p/<str:token>/dispute/", reports.dispute, name="private_dispute"),
    path("p/<str:token>/drop/", reports.drop, name="private_drop"),
    path(
        "t/<slug:slug>/manage/rounds/<int:number>/reports/",
        reports.to_check,
        name="manage_reports",
    ),
    path(
        "t/<slug:slug>/manage/matches/<int:pk>/report/reset/",
        reports.reset,
        name="manage_report_reset",
    ),
]
