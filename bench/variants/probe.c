// The probe behind the choice of libvips for variants (bench/RESULTS.md, "Variants: libvips against
// hand-written resampling"): CPU per 256 px JPEG thumbnail at quality 80, one thread, of
//   vips    libvips' thumbnail (shrink-on-load, Lanczos3 reduce) and jpegsave, as prefetchd calls it;
//   handw   libjpeg-turbo's DCT scaling to the nearest larger 1/2, 1/4 or 1/8, then a separable
//           Lanczos3 on the sRGB values, then libjpeg-turbo's encoder (JPEG only: no orientation, no
//           PNG, alpha or 16-bit paths, no WebP or PNG encoders);
//   linear  the same in linear light.
// Build: gcc -O2 -o probe probe.c $(pkg-config --cflags --libs vips) -ljpeg -lm
// Run:   ./probe vips|handw|linear FILE.jpg ...
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include <time.h>
#include <jpeglib.h>
#include <vips/vips.h>

static double cpu(void){struct rusage r;getrusage(RUSAGE_SELF,&r);return r.ru_utime.tv_sec+r.ru_utime.tv_usec/1e6+r.ru_stime.tv_sec+r.ru_stime.tv_usec/1e6;}
static double wall(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
static unsigned char* slurp(const char*p,size_t*n){FILE*f=fopen(p,"rb");fseek(f,0,SEEK_END);*n=ftell(f);rewind(f);unsigned char*b=malloc(*n);fread(b,1,*n,f);fclose(f);return b;}

static double lanczos(double x){x=fabs(x);if(x<1e-9)return 1;if(x>=3)return 0;double px=M_PI*x;return 3*sin(px)*sin(px/3)/(px*px);}
// one axis: src n -> dst m, pixels of c channels at stride
static void resample(const float*src,int sw,int sh,float*dst,int dw,int c,int horizontal){
  // horizontal only helper: rows sh, from sw to dw
  double scale=(double)sw/dw, support=3*scale;
  for(int x=0;x<dw;x++){
    double center=(x+0.5)*scale; int lo=(int)floor(center-support), hi=(int)ceil(center+support);
    if(lo<0)lo=0; if(hi>sw)hi=sw; double w[4096]; double sum=0; int k=0;
    for(int i=lo;i<hi;i++){w[k]=lanczos((i+0.5-center)/scale);sum+=w[k++];}
    for(int y=0;y<sh;y++){ for(int ch=0;ch<c;ch++){double a=0;k=0;for(int i=lo;i<hi;i++)a+=w[k++]*src[((size_t)y*sw+i)*c+ch];dst[((size_t)y*dw+x)*c+ch]=a/sum;}}
  }
}
static float lut[256];
static unsigned char tosrgb(float v){if(v<=0)return 0;if(v>=1)return 255;double s=v<=0.0031308?12.92*v:1.055*pow(v,1/2.4)-0.055;return (unsigned char)(s*255+0.5);}
static void transpose(const float*s,int w,int h,int c,float*d){for(int y=0;y<h;y++)for(int x=0;x<w;x++)for(int ch=0;ch<c;ch++)d[((size_t)x*h+y)*c+ch]=s[((size_t)y*w+x)*c+ch];}

static size_t handwritten(unsigned char*buf,size_t n,int target,int linear){
  struct jpeg_decompress_struct d; struct jpeg_error_mgr e; d.err=jpeg_std_error(&e); jpeg_create_decompress(&d);
  jpeg_mem_src(&d,buf,n); jpeg_read_header(&d,TRUE);
  int W=d.image_width,H=d.image_height,L=W>H?W:H; int denom=1; while(denom<8 && L/(denom*2)>=target) denom*=2;
  d.scale_num=1;d.scale_denom=denom;d.out_color_space=JCS_RGB; jpeg_start_decompress(&d);
  int w=d.output_width,h=d.output_height; unsigned char*pix=malloc((size_t)w*h*3);
  while(d.output_scanline<d.output_height){unsigned char*row=pix+(size_t)d.output_scanline*w*3;jpeg_read_scanlines(&d,&row,1);}
  jpeg_finish_decompress(&d); jpeg_destroy_decompress(&d);
  int dw,dh; if(w>=h){dw=target;dh=(int)lround((double)h*target/w);}else{dh=target;dw=(int)lround((double)w*target/h);} if(dh<1)dh=1;if(dw<1)dw=1;
  float*f=malloc(sizeof(float)*w*h*3); for(size_t i=0;i<(size_t)w*h*3;i++)f[i]=linear?lut[pix[i]]:pix[i]/255.f;
  float*a=malloc(sizeof(float)*dw*h*3); resample(f,w,h,a,dw,3,1);
  float*t=malloc(sizeof(float)*dw*h*3); transpose(a,dw,h,3,t);
  float*b=malloc(sizeof(float)*dw*dh*3); resample(t,h,dw,b,dh,3,1);
  unsigned char*out=malloc((size_t)dw*dh*3); for(int y=0;y<dh;y++)for(int x=0;x<dw;x++)for(int c=0;c<3;c++){float v=b[((size_t)x*dh+y)*3+c];out[((size_t)y*dw+x)*3+c]=linear?tosrgb(v):(unsigned char)(v<0?0:v>1?255:v*255+0.5);}
  struct jpeg_compress_struct cc; struct jpeg_error_mgr ce; cc.err=jpeg_std_error(&ce); jpeg_create_compress(&cc);
  unsigned char*ob=NULL; unsigned long on=0; jpeg_mem_dest(&cc,&ob,&on); cc.image_width=dw;cc.image_height=dh;cc.input_components=3;cc.in_color_space=JCS_RGB;
  jpeg_set_defaults(&cc); jpeg_set_quality(&cc,80,TRUE); jpeg_start_compress(&cc,TRUE);
  for(int y=0;y<dh;y++){unsigned char*row=out+(size_t)y*dw*3;jpeg_write_scanlines(&cc,&row,1);} jpeg_finish_compress(&cc); jpeg_destroy_compress(&cc);
  free(pix);free(f);free(a);free(t);free(b);free(out);free(ob); return on;
}
static size_t viaVips(unsigned char*buf,size_t n,int target){
  VipsImage*img=NULL; if(vips_thumbnail_buffer(buf,n,&img,target,NULL)){fprintf(stderr,"%s\n",vips_error_buffer());vips_error_clear();return 0;}
  void*ob=NULL;size_t on=0; if(vips_jpegsave_buffer(img,&ob,&on,"Q",80,NULL)){vips_error_clear();} g_object_unref(img); g_free(ob); return on;
}
int main(int argc,char**argv){
  double t0c=cpu(),t0w=wall();
  if(VIPS_INIT(argv[0]))return 1; vips_concurrency_set(1); vips_cache_set_max(0);
  double initc=cpu()-t0c, initw=wall()-t0w;
  for(int i=0;i<256;i++){double s=i/255.0;lut[i]=s<=0.04045?s/12.92:pow((s+0.055)/1.055,2.4);}
  const char*mode=argv[1]; int files=argc-2; size_t bytes=0;
  double c0=cpu(),w0=wall();
  for(int i=2;i<argc;i++){size_t n;unsigned char*b=slurp(argv[i],&n);
    if(!strcmp(mode,"vips"))bytes+=viaVips(b,n,256); else bytes+=handwritten(b,n,256,!strcmp(mode,"linear")); free(b);}
  double c=cpu()-c0,w=wall()-w0;
  printf("%-8s files=%d cpu/thumb=%.2f ms wall/thumb=%.2f ms out=%zu B  (vips_init cpu %.1f ms wall %.1f ms)\n",mode,files,c*1e3/files,w*1e3/files,bytes/files,initc*1e3,initw*1e3);
  return 0;}
