{{%AUTOESCAPE context="HTML"}}
<!DOCTYPE html>
<html lang="en" class="{{THEME}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="strata {{VERSION}}">
<title>{{TITLE}} · {{REPO}} at {{REV}}</title>
<link rel="stylesheet" href="{{ROOT}}strata.css">
</head>
<body>
<header class="site">
<p class="brand"><a href="{{ROOT}}index.html">{{REPO}} <span class="at">at {{REV}}</span></a></p>
<nav aria-label="Report">
<ul>
{{#NAV}}<li><a href="{{HREF}}"{{#CURRENT}} aria-current="page"{{/CURRENT}}>{{LABEL}}</a></li>
{{/NAV}}
</ul>
</nav>
</header>
<main>
