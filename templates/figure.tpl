{{%AUTOESCAPE context="HTML"}}
<figure class="chart">
<a href="{{SVG}}"><picture>{{#NARROW}}<source media="(max-width: 40rem)" srcset="{{SRC}}" type="image/svg+xml" width="{{WIDTH}}" height="{{HEIGHT}}">{{/NARROW}}<img src="{{PNG}}" srcset="{{PNG2X}} 2x" width="{{WIDTH}}" height="{{HEIGHT}}" alt="{{ALT}}"></picture></a>
<figcaption>{{CAPTION}}
<span class="downloads">Chart as <a href="{{SVG}}" type="image/svg+xml">SVG</a>, <a href="{{PNG}}" type="image/png">PNG</a>, <a href="{{PNG2X}}" type="image/png">PNG at 2×</a>.</span></figcaption>
</figure>
